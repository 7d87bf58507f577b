package io.reactivebench.webapi;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.reactivebench.testing.KafkaResource;
import io.reactivebench.testing.StandInsResource;
import io.reactivebench.testing.contract.WebApiContract;

@QuarkusTest
@WithTestResource(StandInsResource.class)
@WithTestResource(KafkaResource.class)
class ArticleResourceTest extends WebApiContract {
    ArticleResourceTest() {
        super("v3");
    }
}
