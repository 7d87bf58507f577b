package io.reactivebench.authors;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.reactivebench.testing.PostgresResource;
import io.reactivebench.testing.contract.AuthorsContract;

@QuarkusTest
@WithTestResource(value = PostgresResource.class, initArgs = @ResourceArg(name = "database", value = "authors"))
class AuthorResourceTest extends AuthorsContract {
    AuthorResourceTest() {
        super("v3");
    }
}
