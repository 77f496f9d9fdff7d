// The units of some stored documents: a row per slice of $slice units of a
// document, a list per column (the lists of a row in the same unit order; the
// client sorts by pre).  Slices keep a row under the 64 KB that FalkorDB
// 4.16's Bolt port can send in one record (a longer one arrives corrupt).  WITH
// between the matches: without it FalkorDB 4.16 plans a cartesian product that
// scans the document's units once per name (15x the server time).
UNWIND $names AS name
MATCH (d:Document {name: name})
WHERE d.complete
WITH name
MATCH (u:Unit {doc: name})
RETURN name, toInteger(floor(u.pre / $slice)) AS part, collect(u.pre) AS pre,
       collect(u.kind) AS kind, collect(u.depth) AS depth, collect(u.ppre) AS ppre,
       collect(u.post) AS post, collect(u.size) AS size, collect(u.pos) AS pos,
       collect(u.start) AS start, collect(u.length) AS length, collect(u.words) AS words,
       collect(u.tag) AS tag, collect(u.path) AS path
