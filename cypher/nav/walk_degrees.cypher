// For every unit of $ids: its number of children, the number of links held in
// its subtree (what a walk's link move divides by: out-links counted over the
// whole collection, multiplicity included), and whether it is a root.  Portable
// openCypher (see walk_into); an id no unit has gives no row.
UNWIND $ids AS id
MATCH (x:Unit {uid: id})
OPTIONAL MATCH (x)-[c:CHILD]->(:Unit)
WITH id, x, count(c) AS children
OPTIONAL MATCH (s:Unit)-[l:LINK]->(:Unit)
WHERE s.doc = x.doc AND x.pre <= s.pre AND s.post <= x.post
RETURN id, children, count(l) AS links, x.depth = 0 AS root
