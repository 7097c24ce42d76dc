"""The kernel's edge to Kafka (layer 5): every client kconnect makes, and the one topic admin.

`clients` turns Kafka's client property names into aiokafka arguments for the producers, consumers
and admin clients of tasks and of the worker itself. `topic_admin` is the one admin client that
creates and describes topics, and reads Kafka's error codes, for the internal topics, KIP-158 topic
creation and the dead letter queue; each of those keeps only its own policy. The task loops
(`kconnect.runtime`) and the stores (`kconnect.storage`) build their clients here and import nothing
of each other.
"""
