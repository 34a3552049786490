-- Record one applied schema file.
INSERT INTO schema_version (version, name) VALUES ($version, $name)
