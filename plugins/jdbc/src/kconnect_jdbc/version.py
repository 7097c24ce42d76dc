"""The plugin's version, shown by ``GET /connector-plugins``."""

VERSION = "0.1.0"
