"""The plugin author's kit: test a kconnect plugin against a real Kafka broker and a real worker.

Installed, it is a pytest plugin (entry point group ``pytest11``): every test session of the
environment gets these fixtures, named ``kconnect_*`` so they never shadow a project's own::

    from kconnect_testkit.records import consume

    def test_counter_source(kconnect_shared_worker, kconnect_bootstrap, kconnect_topic):
        worker = kconnect_shared_worker  # a `kconnect standalone` process with the installed plugins
        worker.run_connector("counter", {"connector.class": "CounterSource", "topic": kconnect_topic})
        records = consume(kconnect_bootstrap, kconnect_topic, count=10)
        assert [r.value for r in records] == [str(i).encode() for i in range(10)]

- ``kconnect_kafka``: one single-node KRaft broker from Apache Kafka's jars per session
  (`broker.KafkaBroker`; the jars are fetched once with Maven into the cache, see `jars`);
- ``kconnect_bootstrap``: its ``bootstrap.servers``; ``kconnect_topic``: a topic name of the test's own;
- ``kconnect_shared_worker``: one started `worker.KconnectWorker` process for the session, and
  ``kconnect_worker``: a factory of workers of the test's own (``kconnect_worker(worker_props)``),
  stopped after the test; ``KconnectWorker.run_connector`` creates a connector and waits until it
  and its tasks are RUNNING;
- `records.produce` and `records.consume`: write records to a topic and read them back.

``kconnect plugin new NAME`` (kconnect-rest's `kconnect_rest.scaffold`) writes a new plugin whose tests
use exactly these fixtures.
"""

# Nothing is imported here: ``scripts/kafka_broker.py`` of kconnect's checkout imports `jars` and `broker`
# with a bare Python, before any test dependency is installed.
