package io.reactivebench.authors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.reactivebench.testing.PostgresResource;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import org.junit.jupiter.api.Test;

/** As the JDBC builds ship (jdbc.reads=transaction): a read runs in a transaction of its own. */
@QuarkusTest
@WithTestResource(value = PostgresResource.class, initArgs = @ResourceArg(name = "database", value = "authors"))
class ReadsInTransactionTest {
    @Inject
    ReadProbe probe;

    @Test
    void aReadRunsInATransactionOfItsOwn() throws SystemException {
        assertEquals(Status.STATUS_ACTIVE, probe.transactionStatus());
    }
}
