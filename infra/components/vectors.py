"""OpenSearch Serverless vector collection for episodes: KMS-encrypted, reachable only by our roles."""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_opensearchserverless as aoss
from constructs import Construct

from infra.config import Config
from infra.names import unique_name

INDEX_PERMISSIONS = [
    "aoss:CreateIndex",
    "aoss:DescribeIndex",
    "aoss:UpdateIndex",
    "aoss:ReadDocument",
    "aoss:WriteDocument",
]
COLLECTION_PERMISSIONS = ["aoss:DescribeCollectionItems"]


class Vectors(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        # Collection and policy names are unique per account and region, and a collection kept by
        # a failed first create would block a retry under the same name: they end with the stack
        # creation's id (infra/names.py), fixed for the stack's life.
        base = stack.stack_name.lower()
        self.collection_name = unique_name(self, f"{base}-episodes", max_length=32, lower=True)
        self.index_name = config.vector_index
        self._policy_name = {
            kind: unique_name(self, f"{base[:14]}-{kind}", max_length=32, lower=True)
            for kind in ("enc", "net", "data")
        }
        collection_rule = {"ResourceType": "collection", "Resource": [f"collection/{self.collection_name}"]}

        encryption = aoss.CfnSecurityPolicy(
            self,
            "EncryptionPolicy",
            name=self._policy_name["enc"],
            type="encryption",
            policy=stack.to_json_string(
                {"Rules": [collection_rule], "AWSOwnedKey": False, "KmsARN": key.key_arn}
            ),
        )
        # Public endpoint, but every request must be SigV4-signed by a principal of the data-access
        # policy below; the functions run outside a VPC so a VPC endpoint would add nothing.
        # Dashboards are not listed, so they are not reachable at all.
        network = aoss.CfnSecurityPolicy(
            self,
            "NetworkPolicy",
            name=self._policy_name["net"],
            type="network",
            policy=stack.to_json_string([{"Rules": [collection_rule], "AllowFromPublic": True}]),
        )
        self.collection = aoss.CfnCollection(
            self,
            "Collection",
            name=self.collection_name,
            type="VECTORSEARCH",
            description="Episode embeddings; every query is filtered by user id",
            standby_replicas="ENABLED" if config.vector_standby_replicas else "DISABLED",
            deletion_protection="ENABLED" if config.deletion_protection else "DISABLED",
        )
        # The encryption policy must exist before the collection is created.
        self.collection.node.add_dependency(encryption, network)
        self.collection.apply_removal_policy(config.removal_policy)

    @property
    def endpoint(self) -> str:
        return self.collection.attr_collection_endpoint

    @property
    def arn(self) -> str:
        return self.collection.attr_arn

    def grant_data_access(self, roles: list[iam.IRole]) -> aoss.CfnAccessPolicy:
        """Only these roles may read or write the episode index (plus aoss:APIAccessAll in IAM)."""
        return aoss.CfnAccessPolicy(
            self,
            "DataAccessPolicy",
            name=self._policy_name["data"],
            type="data",
            policy=Stack.of(self).to_json_string(
                [
                    {
                        "Rules": [
                            {
                                "ResourceType": "index",
                                "Resource": [f"index/{self.collection_name}/{self.index_name}"],
                                "Permission": INDEX_PERMISSIONS,
                            },
                            {
                                "ResourceType": "collection",
                                "Resource": [f"collection/{self.collection_name}"],
                                "Permission": COLLECTION_PERMISSIONS,
                            },
                        ],
                        "Principal": [role.role_arn for role in roles],
                        "Description": "Health LTM functions only",
                    }
                ]
            ),
        )
