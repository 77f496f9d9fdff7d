// One-step link transitions from some units: P(x -> z) = (links held in x's
// subtree arriving at z) / (links held in x's subtree), multiplicity counted (a
// page holds its own links; written without re-matching x after an aggregation,
// which LadybugDB 0.22 cannot evaluate; the relationship named and carried on:
// FalkorDB 4.16 counts parallel edges once when it is not)
UNWIND $sources AS sid
MATCH (x:Unit {uid: sid})
WITH x
MATCH (s:Unit)-[l:LINK]->(z:Unit)
WHERE s.doc = x.doc AND x.pre <= s.pre AND s.post <= x.post
WITH x, z.uid AS t, l
WITH x, collect(t) AS targets
UNWIND targets AS t
WITH x.uid AS source, t AS target, size(targets) AS out, count(*) AS n
RETURN source, target, 1.0 * n / out AS p
