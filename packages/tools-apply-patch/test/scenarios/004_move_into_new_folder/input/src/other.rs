// untouched
