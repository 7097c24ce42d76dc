"""The distribution's version, reported by every connector and task."""

VERSION = "0.1.0"
