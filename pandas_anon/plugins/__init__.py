"""Plugins and the named hierarchies they provide.

Owns the plugin API (:mod:`~pandas_anon.plugins.hookspecs`), the lazy plugin manager
(:mod:`~pandas_anon.plugins.manager`), the built-in plugin (:mod:`~pandas_anon.plugins.builtin`,
registered through the same hook as a pip-installed plugin) and the registry of named
hierarchies built from them (:mod:`~pandas_anon.plugins.registry`).

May import: :mod:`pandas_anon.hierarchy` (the type a hook returns, the built-in builders), the
engine and the foundation modules.
"""
