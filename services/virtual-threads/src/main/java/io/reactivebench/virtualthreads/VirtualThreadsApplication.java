package io.reactivebench.virtualthreads;

import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.core.Application;

/**
 * v3's one difference from v1 on the serving side: Quarkus REST calls every endpoint of the application on a
 * virtual thread of its own instead of a worker thread. The endpoints, Hibernate ORM over JDBC and the
 * blocking REST client stay v1's; a virtual thread that waits for I/O gives its carrier back.
 */
@RunOnVirtualThread
public class VirtualThreadsApplication extends Application {
}
