"""The freshness loop of a tab: check, read, check again, keep (``loop``); one tab's state
(``tab``); and background reads on the page's change notifications (``refresh``)."""
