"""gunicorn's configuration for the production image and docker-compose.yml
(``gunicorn -c qqweb/gunicorn.conf.py ...``; the command line adds the bind address, the
workers and the timeouts).

The request line (method, path and query string) may be up to 8,190 bytes, gunicorn's
largest; its default, 4,094, answered 414 to queries the API's schemas allow (a note list
with every filter at its length limit, its text percent-encoded, is about 6,300 bytes).
Every GET route fits at its limits when its text is ASCII; text in other scripts takes 6
to 12 bytes a character once percent-encoded, and a line past 8,190 bytes is still
answered 414 (by gunicorn, before the app). Long texts and lists go in POST bodies.
"""

limit_request_line = 8190
