"""Computer-use tool adapters: Anthropic's ``computer`` tool and OpenAI's ``computer_call``
actions, run on this desktop (models, scaling, the shared input steps)."""
