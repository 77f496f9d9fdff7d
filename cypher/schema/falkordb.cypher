// FalkorDB: range indexes (no IF NOT EXISTS: the store creates only those missing
// from CALL db.indexes(); re-creating an existing index is an error there)
CREATE INDEX FOR (u:Unit) ON (u.uid);
CREATE INDEX FOR (u:Unit) ON (u.doc);
CREATE INDEX FOR (d:Document) ON (d.name);
CREATE INDEX FOR (a:Attribute) ON (a.nid);
CREATE INDEX FOR (p:PendingLink) ON (p.key);
CREATE INDEX FOR (p:PendingLink) ON (p.src_doc);
CREATE INDEX FOR (p:PendingLink) ON (p.target);
CREATE INDEX FOR (p:PendingLink) ON (p.load);
CREATE INDEX FOR (s:Summary) ON (s.axpre);
CREATE INDEX FOR (s:Summary) ON (s.sid);
CREATE INDEX FOR (c:CStarClass) ON (c.key);
