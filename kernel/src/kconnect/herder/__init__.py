"""The herder: the one front door to a worker's connectors, a pure state machine with I/O at its edges."""
