"""The plugin's version, as `/connector-plugins` shows it."""

VERSION = "0.1.0"
