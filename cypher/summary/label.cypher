// AxPRE label: the partition key of an XML element is its tag
MATCH (u:Unit {kind: 0})
SET u._part = u.tag
