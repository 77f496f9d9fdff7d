// LINK edges leaving some units (the relationship named: see link_sources)
UNWIND $ids AS id
MATCH (:Unit {uid: id})-[l:LINK]->(:Unit)
RETURN id, count(l) AS n
