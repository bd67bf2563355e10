"""One module per API area; each handler validates with desktopd.models and calls the X layer
through desktopd.backend.service.BackendService."""
