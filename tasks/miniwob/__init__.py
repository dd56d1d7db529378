"""MiniWoB++ as an external suite: task types generated from the installed `miniwob` package's
HTML pages, and plan builders that turn a page's utterance into subgoals for the scripted worker."""
