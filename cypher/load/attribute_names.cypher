// Record which attribute names are stored as `@NAME` properties (JSON list)
MERGE (m:Meta {key: 'graphprum'})
SET m.attribute_properties = $names
