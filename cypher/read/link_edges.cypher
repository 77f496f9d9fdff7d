MATCH (:Unit)-[l:LINK]->(:Unit)
RETURN count(l) AS n
