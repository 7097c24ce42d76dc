"""HTTP basic authentication for kconnect's REST API, as a REST extension plugin.

Kafka's ``connect-basic-auth-extension`` for kconnect: every request must carry valid basic
credentials, except the exempt paths. Worker properties::

    rest.extension.classes=BasicAuthSecurityRestExtension   # or Kafka's class name
    rest.basic.auth.credentials.file=/etc/kconnect/credentials
    rest.basic.auth.exempt.paths=/health            # comma-separated; the default

The credentials file holds one ``user:scrypt$...`` line per user (salted scrypt hashes, never
passwords). Add or replace a user with::

    python -m kconnect_basic_auth add-user /etc/kconnect/credentials alice

The file is re-read when it changes; a request without valid credentials gets a 401 with
``WWW-Authenticate: Basic realm="kconnect"``.
"""

__version__ = "0.1.0"
