// LINK edges of a load into an empty store, once it is complete: every link
// record whose target document $names holds (every stored document is the
// load's; WITH between the matches: see resolve_links_to)
// A link arrives at the root r of its target document, or, when it has a
// fragment, at the first element (in document order) that the fragment names:
// its id or xml:id, or the name of an <a> (graphprum.store.linkgraph.names_fragment).
UNWIND $names AS name
MATCH (p:PendingLink {target: name})
WHERE p.complete
WITH p, name
MATCH (d:Document {name: name})-[:ROOT]->(r:Unit)
WHERE d.complete
WITH p, r
MATCH (s:Unit {uid: p.src})
WITH p, r, s
UNWIND CASE coalesce(p.fragment, '') WHEN '' THEN [null]
       ELSE ['id=' + p.fragment, 'xml:id=' + p.fragment, 'name=' + p.fragment] END AS nid
OPTIONAL MATCH (n:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute {nid: nid})
WHERE n.doc = r.doc AND n.seq = r.seq AND (a.name <> 'name' OR n.tag = 'a')
WITH p, r, s, collect(n) AS named
WITH p, s, reduce(t = r, n IN named | CASE WHEN t = r OR n.pre < t.pre THEN n ELSE t END) AS t
CREATE (s)-[:LINK {key: p.key, anchor: p.anchor, lseq: p.lseq}]->(t)
