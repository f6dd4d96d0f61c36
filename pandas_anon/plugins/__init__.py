"""Plugins: the pluggy hooks a plugin implements and the manager that loads them.

Owns the plugin API (:mod:`~pandas_anon.plugins.hookspecs`) and the lazy plugin manager
(:mod:`~pandas_anon.plugins.manager`); the built-in hierarchies register through the same
hooks as a pip-installed plugin.

May import: :mod:`pandas_anon.hierarchy.model` (the type a hook returns) and the foundation
modules.
"""
