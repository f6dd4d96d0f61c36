"""Generalization hierarchies: the model, its builders and the registry of named ones."""

from .model import TOP, Hierarchy

__all__ = ["TOP", "Hierarchy"]
