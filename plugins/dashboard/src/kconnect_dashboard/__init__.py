"""kconnect's dashboard: a REST extension that serves a browser view of the worker's own REST API.

Enable it with the worker property ``rest.extension.classes=Dashboard`` and open
``http://<worker>/dashboard/``. The page is static files shipped in this package (no build step, no
CDN); everything it shows or does goes through Kafka Connect's REST API on the same listener, so
basic authentication and HTTPS apply to it as to any other call.
"""
