"""The kernel: what every app imports and that imports no app."""
