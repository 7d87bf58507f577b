-- After every migration (Flyway's afterMigrate callback): the service's own role reads and writes the rows, and no
-- more. The schema and its table stay the migrating role's, so the service at run time cannot change them. Where
-- both are one user (the local stack, the contract suites) this grants the owner what it has.
GRANT USAGE ON SCHEMA ${flyway:defaultSchema} TO ${service_role};
GRANT SELECT, INSERT, UPDATE, DELETE ON authors TO ${service_role};
