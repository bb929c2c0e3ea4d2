STALE = True
