package io.reactivebench.authors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.reactivebench.testing.PostgresResource;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The other side of the reads' A/B (jdbc.reads=transaction, make reads): a read runs in a transaction of its own. */
@QuarkusTest
@TestProfile(ReadsInTransactionTest.InTransaction.class)
@WithTestResource(value = PostgresResource.class, initArgs = @ResourceArg(name = "database", value = "authors"))
class ReadsInTransactionTest {
    public static class InTransaction implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("jdbc.reads", "transaction");
        }
    }

    @Inject
    ReadProbe probe;

    @Test
    void aReadRunsInATransactionOfItsOwn() throws SystemException {
        assertEquals(Status.STATUS_ACTIVE, probe.transactionStatus());
    }
}
