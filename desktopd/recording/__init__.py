"""Screen recordings: the recorder (ffmpeg on the display), their retention on disk, and the
routes that start, stop, download and delete them."""
