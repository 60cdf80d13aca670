"""Eight real-looking Wikipedia intros that form a two-hop chain (Augeri -> Journey; Foxes -> Currie -> Runaways).

A module of its own, not conftest, so that tests can import it: both test folders have a conftest.py and
pytest imports only one module named `conftest`.
"""

SMALL_CORPUS = [
    {"title": "Steve Augeri", "text": "Steve Augeri (born January 30, 1959) is an American rock singer, best known as the lead vocalist for Journey from 1998 to 2006."},
    {"title": "Foxes (soundtrack)", "text": "Foxes is the soundtrack to the 1980 film Foxes, starring Jodie Foster and Cherie Currie, the former lead singer of The Runaways."},
    {"title": "Cherie Currie", "text": "Cherie Currie (born November 30, 1959) is an American singer, musician, and actress. She was the lead singer of The Runaways."},
    {"title": "The Runaways", "text": "The Runaways were an American all-female rock band that recorded and performed in the second half of the 1970s."},
    {"title": "Journey (band)", "text": "Journey is an American rock band that formed in San Francisco in 1973."},
    {"title": "Jodie Foster", "text": "Alicia Christian Foster, known professionally as Jodie Foster, is an American actress and director."},
    {"title": "Foxes", "text": "Foxes are small to medium-sized, omnivorous mammals belonging to several genera of the family Canidae."},
    {"title": "San Francisco", "text": "San Francisco is a city in the U.S. state of California."},
]
