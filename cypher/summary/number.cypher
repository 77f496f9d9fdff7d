// One Summary node per partition key, numbered S1, S2, ... in load order of its
// first element, with its extent, total length and tag, and IN_PARTITION from
// each element (the keys of summary/*.cypher, in u._part)
MATCH (u:Unit)
WHERE u._part IS NOT NULL
WITH u._part AS part, collect(u) AS members, min(u.seq * 4294967296 + u.pre) AS first,
     sum(u.length) AS length, min(u.tag) AS tag
ORDER BY first
WITH collect([part, members, length, tag]) AS groups
UNWIND range(0, size(groups) - 1) AS i
WITH i, groups[i] AS g
CREATE (s:Summary {axpre: $axpre, sid: 'S' + toString(i + 1), key: g[0],
                   extent: size(g[1]), length: g[2], tag: g[3]})
WITH s, g[1] AS members
UNWIND members AS u
CREATE (u)-[:IN_PARTITION]->(s)
RETURN count(*) AS n
