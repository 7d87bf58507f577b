package io.reactivebench.articles;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.reactivebench.testing.KafkaResource;
import io.reactivebench.testing.PostgresResource;
import io.reactivebench.testing.contract.ArticlesContract;

@QuarkusTest
@WithTestResource(value = PostgresResource.class, initArgs = @ResourceArg(name = "database", value = "articles"))
@WithTestResource(KafkaResource.class)
class ArticleResourceTest extends ArticlesContract {
    ArticleResourceTest() {
        super("v3");
    }
}
