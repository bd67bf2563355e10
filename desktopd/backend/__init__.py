"""The desktop backend as the HTTP layer sees it: the interface every backend implements and the
choice of one (protocol.py), and the service every handler calls it through (service.py)."""
