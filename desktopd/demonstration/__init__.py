"""A person's demonstration: their input on the X11 desktop captured (X RECORD), told apart from
desktopd's own, turned into the actions an agent would send, and served as a stream."""
