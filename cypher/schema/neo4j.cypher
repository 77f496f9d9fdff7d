// Neo4j 5: constraints and indexes, created if absent (';' separated)
CREATE CONSTRAINT graphprum_unit_uid IF NOT EXISTS FOR (u:Unit) REQUIRE u.uid IS UNIQUE;
CREATE CONSTRAINT graphprum_document_name IF NOT EXISTS FOR (d:Document) REQUIRE d.name IS UNIQUE;
CREATE INDEX graphprum_unit_doc IF NOT EXISTS FOR (u:Unit) ON (u.doc);
CREATE CONSTRAINT graphprum_attribute_nid IF NOT EXISTS FOR (a:Attribute) REQUIRE a.nid IS UNIQUE;
CREATE INDEX graphprum_pending_key IF NOT EXISTS FOR (p:PendingLink) ON (p.key);
CREATE INDEX graphprum_pending_src_doc IF NOT EXISTS FOR (p:PendingLink) ON (p.src_doc);
CREATE INDEX graphprum_pending_target IF NOT EXISTS FOR (p:PendingLink) ON (p.target);
CREATE INDEX graphprum_pending_load IF NOT EXISTS FOR (p:PendingLink) ON (p.load);
CREATE INDEX graphprum_summary_axpre IF NOT EXISTS FOR (s:Summary) ON (s.axpre);
CREATE INDEX graphprum_summary_sid IF NOT EXISTS FOR (s:Summary) ON (s.sid);
CREATE INDEX graphprum_cstar_key IF NOT EXISTS FOR (c:CStarClass) ON (c.key);
