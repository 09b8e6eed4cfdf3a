"""syshdr: see setup.py."""
