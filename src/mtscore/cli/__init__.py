"""Thin command-line layer: parse -> call the library -> render -> exit code."""
