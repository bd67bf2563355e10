"""The /layout body: the query (``options``), its JSON shapes (``shapes``), each node's JSON for
a view (``render``) and the bodies as bytes, reused while unchanged, with ETag and gzip
(``encoding``)."""
