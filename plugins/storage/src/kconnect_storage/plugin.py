"""Registers the storage sink connectors with kconnect (entry point ``kconnect_storage.plugin``)."""
