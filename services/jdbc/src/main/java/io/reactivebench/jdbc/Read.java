package io.reactivebench.jdbc;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A repository method that only reads. It waits its turn for a connection in the {@link ConnectionQueue}, and reads
 * the way {@code jdbc.reads} says ({@link ReadInterceptor}): in a transaction of its own, or without one.
 */
@InterceptorBinding
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
public @interface Read {
}
