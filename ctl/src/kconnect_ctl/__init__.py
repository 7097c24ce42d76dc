"""kconnectctl: a command line for the Kafka Connect REST API, in the spirit of kcctl.

A client of any Kafka Connect cluster (kconnect or Java): it imports nothing of ``kconnect``. The
verbs follow kcctl and kubectl::

    kconnectctl config set-context local --cluster http://localhost:8083
    kconnectctl get connectors -o table
    kconnectctl apply -f my-connector.properties
    kconnectctl restart connector my-connector --include-tasks --only-failed

Exit codes scripts can rely on: 0 success, 1 the cluster refused the request (a 4xx or 5xx answer),
2 bad usage or a bad input file, 3 the cluster cannot be reached. ``docs/cli.md`` lists every
command and the context file.
"""

__version__ = "0.1.0"
