// walk_degrees.cypher for a store loaded before units kept their held links
// (Meta without held): the links held in x's subtree counted by matching the
// document's units by pre/post interval (one scan of the document per unit; a
// store's next load or `graphprum load --resume` stores the counts)
UNWIND $ids AS id
MATCH (x:Unit {uid: id})
OPTIONAL MATCH (x)-[c:CHILD]->(:Unit)
WITH id, x, count(c) AS children
OPTIONAL MATCH (s:Unit)-[l:LINK]->(:Unit)
WHERE s.doc = x.doc AND x.pre <= s.pre AND s.post <= x.post
RETURN id, children, count(l) AS links, x.depth = 0 AS root
