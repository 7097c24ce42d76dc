"""Unit tests of the Spark executor plugin's pure logic and its control channel (no Spark)."""
