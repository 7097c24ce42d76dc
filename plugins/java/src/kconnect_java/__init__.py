"""kconnect-java: the Java Kafka Connect plugins on a worker's ``plugin.path``, beside Python ones.

Kafka's own scanner and class-loader isolation (``org.apache.kafka.connect.runtime.isolation``)
run in a JVM behind a small facade (``plugins/java/jvm``, built with Maven on first use:
`kconnect_java.build`); this package registers what they find through the
``register_worker_plugins`` hook. A Java connector's instance runs in that JVM
(`kconnect_java.connector`); its tasks run on Spark's executor JVMs (``kconnect_spark.java_job``,
``dev.kconnect.java.task``). See docs/java-connectors.md.
"""
