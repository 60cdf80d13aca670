"""Exploratory analyses (issue work in progress): each module prints or writes what it found; none is a default."""
