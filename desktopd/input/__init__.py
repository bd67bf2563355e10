"""Input: the pointer and keyboard routes (handlers.py, models.py, routes.py) over the input layer.
The layer (pointer_events.py, keystrokes.py) runs pointer events and keystrokes on the X thread,
with held buttons and keys released on failure; the routes, /step and the computer-use formats all
drive input through it, and it knows nothing about requests."""
