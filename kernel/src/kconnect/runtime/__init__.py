"""The task loops: where records move, independent of where (which executor) they run."""
