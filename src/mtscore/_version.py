"""The package version, in a leaf module (no imports) so that every stage can read it without
importing the package root (docs/architecture.md: no import circle)."""
__version__ = "0.1.0"
