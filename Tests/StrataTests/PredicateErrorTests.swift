import Foundation
import Testing
@testable import Strata

@Suite struct PredicateSyntaxErrors {
    /// The error thrown for `format`, which must be a syntax error.
    func syntaxError(_ format: String, _ arguments: PredicateArgument...) -> StrataError? {
        do {
            _ = try FetchPredicate(format: format, argumentArray: arguments)
            return nil
        } catch let error as StrataError {
            return error
        } catch {
            return nil
        }
    }

    @Test func malformedPredicatesReportTheColumnAndWhatWasExpected() {
        let cases: [(String, Int, String)] = [
            ("", 1, "expected an expression"),
            ("a ==", 5, "expected an expression"),
            ("a 1", 3, "expected a comparison operator"),
            ("a == 1 AND", 11, "expected an expression"),
            ("(a == 1", 8, "expected ')'"),
            ("a == 1)", 7, "expected AND, OR or the end"),
            ("a == 'open", 6, "unterminated string"),
            ("a == 1 AND b === 2", 16, "expected an expression"),
            ("a BETWEEN {1, 2, 3}", 3, "BETWEEN needs exactly two bounds"),
            ("a ==[x] 1", 6, "unknown comparison option 'x'"),
            ("a == 1 ANDD b == 2", 8, "expected AND, OR"),
            ("employees.@bogus == 1", 11, "unknown collection operator"),
            ("employees.@count.name == 1", 18, "@count takes no key path"),
            ("a == %x", 6, "unknown format specifier"),
            ("a == 12abc", 8, "malformed number"),
            ("SUBQUERY(e, x, x > 1).@count > 0", 13, "expected a $variable"),
            ("a == \"\\q\"", 7, "unknown escape"),
            ("a.in == 1 AND == 2", 15, "expected an expression"),
            ("and == 1", 1, "write #and"),
            ("a == CAST(\"x\", \"NSDate\")", 11, "cannot convert"),
            ("a == 1 OR ^", 11, "unexpected character '^'"),
        ]
        for (format, column, message) in cases {
            guard let error = syntaxError(format) else {
                Issue.record("\(format.debugDescription) parsed but should not")
                continue
            }
            #expect(error.code == .predicateSyntax, "\(format)")
            #expect(error.context.column == column, "\(format): \(error.message)")
            #expect(error.context.predicate == format)
            #expect(error.message.contains(message), "\(format): \(error.message)")
            #expect(error.message.contains("column \(column)"), "\(format): \(error.message)")
        }
    }

    @Test func argumentCountAndKindsAreChecked() {
        #expect(syntaxError("a == %@")?.message.contains("'%@' has no argument") == true)
        #expect(syntaxError("a == %@ AND b == %@", 1)?.context.column == 18)
        #expect(syntaxError("a == 1", 1)?.message.contains("1 arguments were given") == true)
        #expect(syntaxError("a == %d", "x")?.message.contains("must be an integer, not a string") == true)
        #expect(syntaxError("a == %f", "x")?.message.contains("must be a number") == true)
        #expect(syntaxError("%K == 1", 5)?.message.contains("must be a key path") == true)
        #expect(syntaxError("a == %@", .key("b"))?.message.contains("use %K") == true)
        #expect(syntaxError("%K == 1", .key("a; DROP TABLE x"))?.message.contains("is not a key name") == true)
        #expect(syntaxError("%K == 1", .key("a..b")) != nil)
        #expect(syntaxError("a == CAST(\"x-strata:///E/t1\", \"NSManagedObjectID\")")?.message.contains("pass them as %@") == true)
    }

    @Test func hostileInputIsRejectedWithoutCrashing() {
        let deep = String(repeating: "(", count: 10_000) + "a == 1" + String(repeating: ")", count: 10_000)
        #expect(syntaxError(deep)?.message.contains("nested more than") == true)
        let deepNot = String(repeating: "NOT ", count: 5_000) + "a == 1"
        #expect(syntaxError(deepNot) != nil)
        let deepCollection = "a IN " + String(repeating: "{", count: 5_000)
        #expect(syntaxError(deepCollection) != nil)
        for junk in ["\u{0}", "\"\\u{110000}\"", "'\\u{}'", "$", "#", "@", "-", "a == -", "0x", "a == 0xFFFFFFFFFFFFFFFFF", "%", "[", "{", "}"] {
            #expect(syntaxError(junk) != nil, "\(junk.debugDescription)")
        }
    }
}
