// Where a link arrives (the end of load/links_create, resolve_links_to and
// resolve_links_from, put in for their {arrival}): from rows p (a link record),
// r (the root of its target document) and s (the unit holding it), rows p, s
// and t: r, or, when the link has a fragment, the first element (in document
// order) that the fragment names: its id or xml:id, or the name of an <a>
// (graphprum.store.linkgraph.names_fragment).
UNWIND CASE coalesce(p.fragment, '') WHEN '' THEN [null]
       ELSE ['id=' + p.fragment, 'xml:id=' + p.fragment, 'name=' + p.fragment] END AS nid
OPTIONAL MATCH (n:Unit)-[:HAS_ATTRIBUTE]->(a:Attribute {nid: nid})
WHERE n.doc = r.doc AND n.seq = r.seq AND (a.name <> 'name' OR n.tag = 'a')
WITH p, r, s, collect(n) AS named
WITH p, s, reduce(t = r, n IN named | CASE WHEN t = r OR n.pre < t.pre THEN n ELSE t END) AS t
