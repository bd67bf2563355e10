"""Computer-use formats: vendor action formats (formats/: Anthropic's ``computer`` tool, OpenAI's
``computer_call``, ...) run on this desktop, with the display scaling and input steps they share."""
