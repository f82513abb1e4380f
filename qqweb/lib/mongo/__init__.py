"""MongoDB plumbing every agent layout's store shares (the notes' and the facts'):

- ``guard.py``: a driver error as ours (outage or bug, decided once), the guard around a
  use of a client, and what a refused bulk insert means;
- ``outages.py``: fail fast while a server is known to be down;
- ``layouts.py``: which agent's layout a collection holds, so a store never writes into
  the other agent's;
- ``safe_values.py``: what may be stored (no operator keys, bounded depth).

Framework-free, like the libraries that use it: pymongo and the store errors only."""
